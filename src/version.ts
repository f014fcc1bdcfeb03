import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './paths.js';

let version: string | undefined;

export function toolInfo(): { name: string; version: string } {
  version ??= (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return { name: 'mcpcheck', version };
}
