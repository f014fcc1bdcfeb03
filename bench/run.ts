import { benchValidate } from './validate.js';

benchValidate();
