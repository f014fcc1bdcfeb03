import type { Finding } from '../validate/finding.js';
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

  onFinding(listener: (finding: Finding) => void): void {
    this.findings.add(listener);
  }

  onClose(listener: (info: ChannelClosed) => void): void {
    this.closes.add(listener);
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }
}
