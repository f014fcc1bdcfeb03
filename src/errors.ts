/**
 * A problem with what the user gave mcpcheck (a flag, a file, a target that does not start or
 * cannot be reached). The CLI prints its one-line message and exits 2.
 */
export class SetupError extends Error {
  override name = 'SetupError';
}

/**
 * The server refused the run's first request with HTTP 401: it is a protected resource
 * (basic/authorization.mdx) and wants a token mcpcheck was not given (`tokenGiven` false), or
 * refused the one it was given.
 */
export class TokenWanted extends SetupError {
  override name = 'TokenWanted';
  constructor(
    message: string,
    readonly tokenGiven: boolean,
  ) {
    super(message);
  }
}
