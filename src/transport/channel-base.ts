import type { Finding } from '../validate/finding.js';
import { findingsIn, judgedRevision } from '../validate/in-revision.js';
import type { ChannelClosed, IncomingFrame } from './channel.js';
import { Listeners } from './common.js';

/** The listener wiring every channel shares; subclasses emit through the protected lists. */
export abstract class ChannelEvents {
  protected readonly frames = new Listeners<IncomingFrame>();
  protected readonly findings = new Listeners<Finding>();
  protected readonly closes = new Listeners<ChannelClosed>();
  protected protocolVersion: string | undefined;

  onFrame(listener: (frame: IncomingFrame) => void): void {
    this.frames.add(listener);
  }

  /** Only findings of rules the negotiated revision has reach listeners (no priming demanded of 2025-06-18). */
  onFinding(listener: (finding: Finding) => void): void {
    this.findings.add((f) => {
      for (const g of findingsIn([f], judgedRevision(this.protocolVersion))) listener(g);
    });
  }

  onClose(listener: (info: ChannelClosed) => void): void {
    this.closes.add(listener);
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }
}
