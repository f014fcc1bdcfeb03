import { benchClient } from './client.js';
import { benchOfficial } from './official.js';
import { benchServer } from './server.js';
import { benchValidate } from './validate.js';

benchValidate();
await benchServer();
await benchOfficial();
await benchClient();
