export { renderConsole, type ConsoleOptions } from './console.js';
export { renderJson } from './json.js';
export { renderJunit, slug } from './junit.js';
export { renderHtml } from './html/index.js';
export { writeReports, type ReportPaths } from './write.js';
export { escapeTerminal, truncate } from './escape.js';
export { xmlSafe } from './xml-safe.js';
export { groupByArea, isUnexpectedFailure, type AreaGroup } from './areas.js';
