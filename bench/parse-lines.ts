import { readFileSync } from 'node:fs';

/**
 * The floor for `mcpcheck validate`: read a transcript and JSON.parse every line, nothing else.
 * Run as its own process, so both sides of the comparison pay Node's start-up and the file read.
 */
const text = readFileSync(process.argv[2]!, 'utf8');
let parsed = 0;
for (const line of text.split('\n')) {
  if (line === '') continue;
  JSON.parse(line);
  parsed++;
}
if (parsed === 0) process.exit(1);
