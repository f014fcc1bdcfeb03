/**
 * Preloaded (`node --import`) into the benchmark's child processes: reports the CPU time the
 * process used, all threads, on stderr as it exits. On a shared machine that varies far less
 * than wall time, since a neighbour's load delays a process without adding to its CPU time.
 */
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write(`\nmcpcheck-bench-cpu-ms ${((user + system) / 1000).toFixed(1)}\n`);
});
