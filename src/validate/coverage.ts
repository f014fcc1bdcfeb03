import type { RequirementId } from '../spec/requirement-id.js';

/**
 * Every requirement the passive validators (message + session) can judge. `validate` reports
 * each as a check: pass when traffic exercised it without a violation, skip when nothing in the
 * transcript gave it a chance to fail.
 */
export const VALIDATOR_RULES: readonly RequirementId[] = [
  'BASE-MSG-01', 'BASE-MSG-02', 'BASE-MSG-04', 'BASE-MSG-05', 'BASE-ID-01', 'BASE-ID-02', 'BASE-ID-03', 'BASE-ID-04',
  'BASE-RES-01', 'BASE-RES-02', 'BASE-RES-03', 'BASE-ERR-01', 'BASE-ERR-02', 'BASE-NOTIF-01', 'BASE-SCHEMA-01', 'ROBUST-08',
  'META-KEY-01', 'META-KEY-02', 'META-KEY-03', 'META-KEY-04', 'META-RSV-01', 'META-RSV-03',
  'JSCH-DIAL-01', 'JSCH-DIAL-03', 'JSCH-VAL-02', 'JSCH-VAL-03', 'TOOL-SCHEMA-01',
  'ICON-FMT-01', 'ICON-FMT-02', 'ICON-FMT-03',
  'LIFE-INIT-01', 'LIFE-INIT-02', 'LIFE-INIT-03', 'LIFE-INIT-04', 'LIFE-INIT-05', 'LIFE-VER-01', 'LIFE-VER-03', 'LIFE-VER-04',
  'LIFE-OP-01', 'LIFE-OP-02', 'LIFE-CAP-01',
  'STDIO-FRAME-01', 'STDIO-OUT-01', 'STDIO-IN-01',
  'PING-01', 'CANCEL-01', 'CANCEL-02', 'CANCEL-04', 'PROG-01', 'PROG-02', 'PROG-04',
  'LOG-CAP-01', 'LOG-LVL-01', 'LOG-SET-01', 'LOG-SET-02', 'COMP-RES-01', 'COMP-REQ-01', 'PAGE-01',
  'TOOL-LIST-01', 'TOOL-NAME-01', 'TOOL-NAME-03', 'TOOL-CALL-01', 'TOOL-CONT-01', 'TOOL-OUT-01', 'TOOL-OUT-03',
  'RES-LIST-01', 'RES-READ-01', 'RES-TPL-01', 'RES-SUB-01', 'RES-SUB-02', 'RES-URI-02', 'PROMPT-LIST-01', 'PROMPT-GET-01', 'PROMPT-CONT-01',
  'ROOTS-LIST-01', 'SAMP-REQ-01', 'SAMP-RES-01', 'SAMP-TOOLS-01', 'ELIC-REQ-01', 'ELIC-FORM-02', 'ELIC-CAP-02',
  'ELIC-RESP-01', 'ELIC-RESP-02', 'ELIC-URL-03', 'ELIC-URL-01', 'ELIC-ERR-01', 'ELIC-FORM-04', 'ELIC-CMPL-01',
  'BASE-ERR-03', 'SAMP-MSG-01', 'SAMP-MSG-02', 'SAMP-CTX-01', 'RES-ANN-01', 'TOOL-CONT-02',
];

/**
 * Rules the transports judge live on the bytes a target sends, beyond VALIDATOR_RULES (a
 * violation becomes a `live.<ID>` check): the HTTP client (src/transport/http.ts) judges a
 * server's answers, mcpcheck's HTTP endpoint (src/validate/client-http.ts) a client's requests,
 * the stdio relay (src/transport/stdio-relay.ts) how a client ends its server. No transcript holds
 * this (HTTP headers, process signals), so `validate` cannot judge them.
 */
export const TRANSPORT_RULES: Readonly<Record<'stdio' | 'http', readonly RequirementId[]>> = {
  stdio: ['LIFE-SHUT-01'],
  http: ['HTTP-POST-05', 'HTTP-SSE-01', 'HTTP-RESUME-01', 'HTTP-GET-02', 'HTTP-POST-01', 'HTTP-POST-02', 'HTTP-GET-01', 'HTTP-VER-01', 'HTTP-VER-02', 'HTTP-SESS-04'],
};
