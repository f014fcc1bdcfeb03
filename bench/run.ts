import { benchClient } from './client.js';
import { benchEras } from './eras.js';
import { benchFuzz } from './fuzz.js';
import { benchOfficial } from './official.js';
import { benchClientAuth } from './client-auth.js';
import { benchServer } from './server.js';
import { benchStartup } from './startup.js';
import { benchTasks } from './tasks.js';
import { benchValidate, benchValidate2026 } from './validate.js';
import { benchProxy } from './proxy.js';

/** Every part by default; `node dist/bench/run.js validate server` runs only the parts named. */
const PARTS: Record<string, () => void | Promise<void>> = { startup: benchStartup, validate: benchValidate, validate2026: benchValidate2026, server: benchServer, official: benchOfficial, eras: benchEras, client: benchClient, clientAuth: benchClientAuth, tasks: benchTasks, proxy: benchProxy, fuzz: benchFuzz };
const chosen = process.argv.slice(2);
const unknown = chosen.filter((p) => !(p in PARTS));
if (unknown.length > 0) {
  console.error(`bench: unknown part ${unknown.join(', ')} (parts: ${Object.keys(PARTS).join(', ')})`);
  process.exit(2);
}
for (const [name, part] of Object.entries(PARTS)) if (chosen.length === 0 || chosen.includes(name)) await part();
