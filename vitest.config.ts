import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most tests wait on the processes they start (targets, clients, timeouts): a whole run keeps
    // about 1.2 of 2 cores busy with two files at once (29 min of CPU in 24 min), so three files at
    // once fill the idle share (vitest's default here is one).
    maxWorkers: 3,
    // Tests marked concurrent (the break loops) run two at a time within their file.
    maxConcurrency: 2,
  },
});
