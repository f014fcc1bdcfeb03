import { isObject } from '../json.js';
import { type Finding, note, show, violation } from './finding.js';
import type { RuleTable } from './rule-table.js';
import { ruling } from '../spec/rulings.js';

/** The rules checkEnvelope judges a frame's JSON-RPC shape by. */
export const ENVELOPE_RULES: RuleTable = ['BASE-MSG-01', 'BASE-MSG-04', 'BASE-MSG-05', 'BASE-ID-01', 'BASE-ID-02', 'BASE-RES-01', 'BASE-RES-02', 'BASE-ERR-01', 'BASE-ERR-02', 'BASE-NOTIF-01', 'ROBUST-08'];

export type MessageKind = 'request' | 'notification' | 'result' | 'error' | 'invalid';

/** Every envelope has every member (undefined when absent): one object shape for every frame. */
export interface Envelope {
  kind: MessageKind;
  /** The message as an object, when it is one. */
  msg: Record<string, unknown> | undefined;
  id: string | number | undefined;
  method: string | undefined;
  findings: Finding[];
}

function envelope(kind: MessageKind, findings: Finding[], msg?: Record<string, unknown>, method?: string, id?: string | number): Envelope {
  return { kind, msg, id, method, findings };
}

function isId(v: unknown): v is string | number {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
}

/**
 * Classifies a frame as a JSON-RPC request, notification, result or error response and checks
 * what the schema alone cannot: JSON Schema accepts extra members, so "both result and error"
 * and "a notification with an id" need explicit code (ruling schema-ts-over-json).
 */
/** An error response without an id (or with the JSON-RPC 2.0 null id): the answer to a request whose id could not be read. */
export function isAnonymousError(message: unknown): boolean {
  return isObject(message) && isObject(message.error) && (!('id' in message) || message.id === null);
}

export function checkEnvelope(message: unknown): Envelope {
  const findings: Finding[] = [];
  if (Array.isArray(message)) {
    findings.push(violation('BASE-MSG-05', `expected a single JSON-RPC message object; got a batch array of ${message.length} element(s) — JSON-RPC batching is not part of MCP since 2025-06-18`));
    return envelope('invalid', findings);
  }
  if (message === null || typeof message !== 'object') {
    findings.push(violation('BASE-MSG-01', `expected a JSON-RPC message object; got ${show(message)}`));
    return envelope('invalid', findings);
  }
  const msg = message as Record<string, unknown>;
  if (msg.jsonrpc !== '2.0') {
    findings.push(violation('BASE-MSG-01', `expected "jsonrpc": "2.0"; got ${show(msg.jsonrpc)}`, '/jsonrpc'));
  }
  const hasId = 'id' in msg;
  if ('method' in msg) {
    if (typeof msg.method !== 'string') {
      findings.push(violation('BASE-MSG-01', `expected "method" to be a string; got ${show(msg.method)}`, '/method'));
      return envelope('invalid', findings, msg);
    }
    const method = msg.method;
    if ('result' in msg || 'error' in msg) {
      findings.push(violation('BASE-MSG-01', `expected a request or notification (method) or a response (result/error), not both; got members ${show(Object.keys(msg))}`));
    }
    if (method.startsWith('notifications/')) {
      if (hasId) {
        findings.push(violation('BASE-NOTIF-01', `expected notification ${show(method)} to carry no id; got "id": ${show(msg.id)}`, '/id'));
      }
      return envelope('notification', findings, msg, method);
    }
    if (!hasId) return envelope('notification', findings, msg, method);
    if (msg.id === null) {
      findings.push(violation('BASE-ID-02', `expected a request id that is a string or an integer; got null (request ${show(method)})`, '/id'));
      return envelope('invalid', findings, msg, method);
    }
    if (!isId(msg.id)) {
      findings.push(violation('BASE-ID-01', `expected a request id that is a string or an integer; got ${show(msg.id)} (request ${show(method)})`, '/id'));
      return envelope('invalid', findings, msg, method);
    }
    return envelope('request', findings, msg, method, msg.id);
  }

  const hasResult = 'result' in msg;
  const hasError = 'error' in msg;
  if (hasResult && hasError) {
    findings.push(violation('BASE-MSG-04', `expected a response with exactly one of "result" and "error"; got both (id ${show(msg.id)})`));
  }
  if (!hasResult && !hasError) {
    findings.push(violation('BASE-MSG-01', `expected a request (method), a result or an error response; got an object with members ${show(Object.keys(msg))}`));
    return envelope('invalid', findings, msg);
  }
  const id = isId(msg.id) ? msg.id : undefined;
  if (hasError) {
    checkError(msg, findings);
    return envelope('error', findings, msg, undefined, id);
  }
  if (!hasId) {
    findings.push(violation('BASE-RES-01', 'expected a result response to repeat the id of the request it answers; got no id'));
  } else if (id === undefined) {
    findings.push(violation('BASE-RES-01', `expected the id of a result response to be a string or an integer; got ${show(msg.id)}`, '/id'));
  }
  const result = msg.result;
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    findings.push(violation('BASE-RES-02', `expected "result" to be a JSON object; got ${show(result)}`, '/result'));
  }
  return envelope('result', findings, msg, undefined, id);
}

function checkError(msg: Record<string, unknown>, findings: Finding[]): void {
  const error = msg.error;
  if (error === null || typeof error !== 'object' || Array.isArray(error)) {
    findings.push(violation('BASE-ERR-02', `expected "error" to be an object with an integer code and a string message; got ${show(error)}`, '/error'));
  } else {
    const e = error as Record<string, unknown>;
    if (typeof e.code !== 'number' || !Number.isInteger(e.code)) {
      findings.push(violation('BASE-ERR-02', `expected error.code to be an integer; got ${show(e.code)}`, '/error/code'));
    }
    if (typeof e.message !== 'string') {
      findings.push(violation('BASE-ERR-02', `expected error.message to be a string; got ${show(e.message)}`, '/error/message'));
    }
  }
  if ('id' in msg && msg.id === null) {
    findings.push(note('ROBUST-08', `error response carries "id": null (JSON-RPC 2.0 style); the 2025-11-25 schema omits the id instead — a compatibility note, not a failure (${ruling('jsonrpc-null-id').cite})`, '/id'));
  } else if ('id' in msg && !isId(msg.id)) {
    findings.push(violation('BASE-ERR-01', `expected the error response id to be the failed request's string or integer id; got ${show(msg.id)}`, '/id'));
  }
}
