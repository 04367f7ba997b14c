// Spoofing and interference event history: opens on the first warning, escalates, resolves after a quiet period.
import type { CheckType } from './types.ts';

export type SpoofingStatus = 'clear' | 'warning' | 'alert';
export type ThreatType = 'spoofing_position' | 'spoofing_time' | 'jamming' | 'anomaly';

export interface SpoofingEvent {
  /** GPS seconds of the first and latest epoch of the event. */
  start: number;
  last: number;
  status: Exclude<SpoofingStatus, 'clear'>;
  threatType: ThreatType;
  checks: CheckType[];
  resolved: boolean;
}

/** Keeps the events; an event resolves once `quietS` seconds pass without a warning. */
export class EventHistory {
  readonly events: SpoofingEvent[] = [];
  private readonly quietS: number;
  private readonly maxEvents: number;

  constructor(quietS = 30, maxEvents = 1000) {
    this.quietS = quietS;
    this.maxEvents = maxEvents;
  }

  get open(): SpoofingEvent | undefined {
    const last = this.events[this.events.length - 1];
    return last && !last.resolved ? last : undefined;
  }

  record(time: number, status: SpoofingStatus, threat: ThreatType | null, checks: CheckType[]): void {
    const open = this.open;
    if (status === 'clear' || !threat) {
      if (open && time - open.last >= this.quietS) open.resolved = true;
      return;
    }
    if (open) {
      open.last = time;
      if (status === 'alert') open.status = 'alert';
      for (const c of checks) if (!open.checks.includes(c)) open.checks.push(c);
      return;
    }
    this.events.push({ start: time, last: time, status, threatType: threat, checks: [...checks], resolved: false });
    if (this.events.length > this.maxEvents) this.events.shift();
  }
}
