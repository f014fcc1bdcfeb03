import type { AsScenario } from '../kit.js';
import { clientCredentials, https, issuer, pkce, published, requiredFields } from './metadata.js';
import { dynamic, redirectScheme } from './registration.js';
import { cached, supported, validated } from './cimd.js';
import { codeGrant, codeReuse, invalidGrant, noStore, unknownClient, wrongSecret } from './token.js';
import { verifierChecked, verifierRequired } from './pkce.js';
import { implicitRefused, issuerParameter, redirectExact } from './authorize.js';
import { rotation } from './refresh.js';
import { consent, cookies, state } from './proxy.js';

/** The `mcpcheck authorization` suite, in report order: metadata first, then what needs a client and a code. */
export const authorizationServerScenarios: AsScenario[] = [
  published,
  issuer,
  requiredFields,
  pkce,
  https,
  clientCredentials,
  dynamic,
  redirectScheme,
  supported,
  validated,
  cached,
  codeGrant,
  noStore,
  invalidGrant,
  unknownClient,
  wrongSecret,
  codeReuse,
  verifierRequired,
  verifierChecked,
  implicitRefused,
  redirectExact,
  issuerParameter,
  rotation,
  consent,
  cookies,
  state,
];
