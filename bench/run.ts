import { benchServer } from './server.js';
import { benchValidate } from './validate.js';

benchValidate();
await benchServer();
