/**
 * The network sandbox (`mcpcheck client --network-sandbox`): mcpcheck and the client it starts run
 * in a network namespace of their own whose only interface is loopback, with the addresses below
 * added to it. There mcpcheck can serve an authorization server at a private address, or at one
 * that is neither loopback nor private, and watch whether a client's OAuth discovery goes there
 * (SEC-SSRF-*), while nothing can leave the machine: the namespace has no route out, and those
 * addresses are this namespace's loopback alone.
 */

/** The addresses the sandbox's loopback interface carries beside 127.0.0.1. */
export const SANDBOX_ADDRESSES = {
  /** A private address (RFC 1918's 10/8), which a client's OAuth discovery should not contact. */
  private: '10.0.0.1',
  /** Neither loopback nor private (TEST-NET-2, RFC 5737): an http: URL there is plain http off loopback. */
  remote: '198.51.100.7',
} as const;

/** Set in the sandbox's environment, for mcpcheck's own process inside it. */
export const SANDBOX_ENV = 'MCPCHECK_NETWORK_SANDBOX';

/** Whether this process runs in the network sandbox (the addresses above are its own). */
export function inNetworkSandbox(): boolean {
  return process.env[SANDBOX_ENV] === '1';
}
