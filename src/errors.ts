/**
 * A problem with what the user gave mcpcheck (a flag, a file, a target that does not start or
 * cannot be reached). The CLI prints its one-line message and exits 2.
 */
export class SetupError extends Error {
  override name = 'SetupError';
}
