import { defineConfig } from 'vitest/config';

// The tests reach nothing beyond loopback, where TLS is mcpcheck's own (src/harness/loopback-trust.ts).
// A NODE_EXTRA_CA_CERTS naming the system bundle, as CI machines set it, has every Node process
// parse some 140 certificates as it starts: half the CPU of a fixture's start, and a run starts
// thousands. The workers, and all they start, go without it.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most tests wait on the processes they start (targets, clients, timeouts): three files at once
    // keep about 82% of 2 cores busy (vitest's default here is one). A fourth finished no sooner and
    // pushed start-up waits past their ceilings.
    maxWorkers: 3,
    // Tests marked concurrent (the break loops) run two at a time within their file.
    maxConcurrency: 2,
  },
});
