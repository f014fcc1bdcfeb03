import type { RuleTable } from '../rule-table.js';
import { type Finding, note, show, violation } from '../finding.js';
import { isStatefulRevision as isRevision } from '../../spec/revisions.js';
import { notAProtocolVersion, unsupportedVersionError } from '../versions.js';
import { obj } from '../../json.js';
import { type AnswerHook, type Concern, type NotificationHook, type RequestHook, resultOf, type Routes } from './concern.js';
import type { SessionState } from './state.js';

/** LIFE-INIT-05: until notifications/initialized, the one request a server should send is ping. */
export function mayRequestBeforeInitialized(method: string): boolean {
  return method === 'ping';
}

/**
 * The initialize era's lifecycle: initialize first, notifications/initialized after its response
 * and before anything else, and the version negotiation it settles (the session's revision, both
 * sides' capabilities).
 */
export class Lifecycle implements Concern {
  static readonly rules: RuleTable = ['LIFE-INIT-01', 'LIFE-INIT-03', 'LIFE-INIT-04', 'LIFE-INIT-05', 'LIFE-VER-01', 'LIFE-VER-04', 'LIFE-OP-01'];
  private clientSpoke = false;
  /** notifications/initialized came. */
  private initialized = false;
  /** The client's initialize broke a MUST of its own (its schema): an error is then a fair answer, whatever the version. */
  private initializeBroken = false;

  constructor(private readonly s: SessionState) {}

  readonly requests: Routes<RequestHook> = {
    '*': (request, findings) => {
      if (this.s.side === 'client') this.clientRequest(request.method, request.params, request.id, findings);
      else {
        this.s.applied.add('LIFE-INIT-05');
        if (!this.initialized && !mayRequestBeforeInitialized(request.method)) {
          findings.push(violation('LIFE-INIT-05', `expected the server to send no request other than ping before notifications/initialized; it sent ${show(request.method)}`, '/method'));
        }
      }
    },
  };

  readonly notifications: Routes<NotificationHook> = {
    'notifications/initialized': (_params, findings) => {
      if (this.s.side !== 'client') return;
      this.s.applied.add('LIFE-INIT-03');
      if (!this.s.negotiated) findings.push(violation('LIFE-INIT-03', 'expected notifications/initialized only after a successful initialize response; it came before', '/method'));
      this.initialized = true;
    },
  };

  readonly answers: Routes<AnswerHook> = {
    initialize: (request, kind, message, findings) => {
      const result = resultOf(kind, message);
      if (result) {
        if (!this.s.negotiated) this.initializeResult(result, findings);
      } else if (kind === 'error' && request.id === this.s.initializeId) this.initializeError(message, findings);
    },
  };

  end(findings: Finding[]): void {
    if (this.s.negotiated && !this.initialized) {
      findings.push(note('LIFE-INIT-03', 'the session ended without notifications/initialized from the client'));
    }
  }

  private clientRequest(method: string, params: Record<string, unknown> | undefined, id: string | number, findings: Finding[]): void {
    const s = this.s;
    if (!this.clientSpoke) {
      s.applied.add('LIFE-INIT-01');
      if (method !== 'initialize') {
        findings.push(violation('LIFE-INIT-01', `expected initialize as the client's first message; got ${show(method)}`, '/method'));
      }
    }
    this.clientSpoke = true;
    if (method === 'initialize') {
      if (s.initializeId === undefined) {
        s.initializeId = id;
        this.initializeBroken = findings.some((f) => f.severity === 'fail');
        const v = params?.protocolVersion;
        if (typeof v === 'string') {
          s.requestedVersion = v;
          s.applied.add('LIFE-VER-01');
          if (isRevision(v)) s.revision = v;
          else findings.push(note('LIFE-VER-01', `the client asked for protocol version ${show(v)}, which mcpcheck does not know; validating with ${s.revision}`, '/params/protocolVersion'));
        }
        s.clientCapabilities = obj(params?.capabilities);
        s.clientInfo = obj(params?.clientInfo);
      }
      return;
    }
    if (method === 'ping') return;
    s.applied.add('LIFE-INIT-04');
    if (!s.negotiated) {
      findings.push(violation('LIFE-INIT-04', `expected no request other than ping before the initialize response; the client sent ${show(method)}`, '/method'));
    } else if (!this.initialized) {
      s.applied.add('LIFE-INIT-03');
      findings.push(violation('LIFE-INIT-03', `expected notifications/initialized after the initialize response and before other requests; the client sent ${show(method)} first`, '/method'));
    }
  }

  private initializeResult(result: Record<string, unknown>, findings: Finding[]): void {
    const s = this.s;
    s.negotiated = true;
    s.serverCapabilities = obj(result.capabilities);
    s.serverInfo = obj(result.serverInfo);
    const v = result.protocolVersion;
    if (typeof v !== 'string') return;
    s.negotiatedVersion = v;
    s.negotiationFrame = s.frame;
    // An answer that differs from the request says the requested version is unsupported (LIFE-VER-04);
    // one that is no protocol version at all cannot be a version the server supports, whatever was asked.
    const problem = notAProtocolVersion(v);
    if (v !== s.requestedVersion || problem !== undefined) s.applied.add('LIFE-VER-04');
    if (problem !== undefined) {
      findings.push(violation('LIFE-VER-04', `expected the server to answer with a protocol version it supports${s.requestedVersion !== undefined ? ` (asked for ${show(s.requestedVersion)})` : ''}; ${problem}`, '/result/protocolVersion'));
    }
    if (isRevision(v)) s.revision = v;
    else findings.push(note('LIFE-OP-01', `the server chose protocol version ${show(v)}, which mcpcheck does not know; validating with ${s.revision}`, '/result/protocolVersion'));
  }

  private initializeError(message: Record<string, unknown>, findings: Finding[]): void {
    const requested = this.s.requestedVersion;
    const error = obj(message.error);
    const aboutVersion = /version/i.test(String(error?.message ?? '')) || obj(error?.data)?.supported !== undefined;
    if (requested !== undefined && !this.initializeBroken && (!isRevision(requested) || aboutVersion)) {
      this.s.applied.add('LIFE-VER-04');
      findings.push(unsupportedVersionError(requested, `error ${show(error?.code)} ${show(error?.message)}`));
    }
  }
}
