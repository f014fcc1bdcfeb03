import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most tests wait on the processes they start (targets, clients, timeouts), so two files at
    // once on two cores shorten the run without starving either (vitest's default here is one).
    maxWorkers: 2,
    // Tests marked concurrent (the break loops) run two at a time within their file.
    maxConcurrency: 2,
  },
});
