/** JSON Schema → values, shared by the scripted suites, the fuzzer and the client harness. */
export { type ArbitraryOptions, arbitraryAt, type Judge, type SchemaArbitrary, schemaArbitrary, type SchemaProblem } from './arbitrary.js';
export { GenerationFailed } from './bounded.js';
export { definitionArbitrary, notificationArbitrary, requestArbitrary } from './mcp.js';
export { metaKeyArbitrary } from './meta-key.js';
export { type ArgumentContext, synthesizeArguments, type SynthesizedArguments } from './synthesize.js';
export { type TimedArguments, timedArguments } from './durations.js';
