// The moves of the other players (robots, friends far away, the other people at this
// screen) shown one after another, at a pace a child follows: the board goes through the
// version after each of their moves (ReplayGame, as the viewer recalls it now: the
// memory rule holds there too), each for at least 1.5 s while its pieces travel
// (boards/motion.ts) and until what is read aloud of it was said, then comes back to the
// game as it is. A tap skips to the end. The viewer's own moves show at once, their
// pieces moving as they go (or briefly, on the way to the others' moves after them).
//
// A beat is a move's events: an event nothing visible comes with (the turn passing, a
// table event) joins the move before it. The speed is a setting of this device
// (`localStorage["ludotheque.pace"]`, the milliseconds a move shows; 0: none shown, the
// board jumps to the present), chosen on the page among SPEEDS.

import type { Event, GameSnapshot, GameView } from "@ludotheque/client";

/** What the board draws: the game at `version` (the present when `live`). */
export interface Frame {
  version: bigint;
  view: GameView | undefined;
  /** The present: the viewer's moves are offered. */
  live: boolean;
  /** The events up to `version` (the board animates those it has not drawn yet). */
  events: readonly Event[];
  /** The events of the move shown (none when live). */
  beat: readonly Event[];
}

/** Who the board is drawn for: a seat, or nobody (the table, a spectator). */
export interface Viewer {
  seat: number | undefined;
  /** The game at a past version as this viewer recalls it now. */
  viewAt(version: bigint): Promise<GameView | undefined>;
}

interface Beat {
  version: bigint;
  events: Event[];
  /** Another's move (or one to celebrate): it stays in view for a while. */
  hold: boolean;
  /** A round won: it stays longer. */
  celebrate: boolean;
  view?: Promise<GameView | undefined>;
}

const PACE_KEY = "ludotheque.pace";
/** The speeds offered, in ms a move: slow, the default, fast. */
export const SPEEDS = [2500, 1500, 800] as const;
const DEFAULT_PACE_MS = SPEEDS[1];
// Moves missed while away (a reconnection, a tab in the background) are not replayed.
const MOST_BEATS = 12;

export function pace(): number {
  const stored = Number(localStorage.getItem(PACE_KEY) ?? "");
  return Number.isFinite(stored) && stored >= 0 && localStorage.getItem(PACE_KEY) !== null ? stored : DEFAULT_PACE_MS;
}

/** Sets the speed of this device (ms a move). */
export function setPace(ms: number): void {
  localStorage.setItem(PACE_KEY, String(ms));
}

export class Playback {
  /** The beat on the board (undefined: the present). */
  private shown: Frame | undefined;
  /** The frame last drawn. */
  private drawn: Frame | undefined;
  /** The last version taken into account (undefined until the first view came). */
  private seen: bigint | undefined;
  private queue: Beat[] = [];
  private running = false;
  private generation = 0;
  private snapshot: GameSnapshot | undefined;
  private viewer: Viewer | undefined;
  private viewVersion = -1n;
  private lastView: GameView | undefined;
  private timer: number | undefined;

  constructor(
    /** Called when the frame to draw changed; resolves once it is drawn. */
    private readonly changed: () => Promise<void>,
    /** Whether an event is worth a beat of its own (else it joins the move before it),
     * and whether it is one to celebrate (shown for a while even when it is the viewer's). */
    private readonly weigh: (event: Event) => { beat: boolean; celebrate: boolean },
    /** Resolves once what was read aloud of the move shown was said. */
    private readonly said: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /** Moves are being shown (the present is not on the board yet). */
  get busy(): boolean {
    return this.running || this.queue.length > 0;
  }

  /** The frame to draw for the live `snapshot` as `viewer` sees it; queues the moves
   * that came since the last call. */
  follow(snapshot: GameSnapshot, viewer: Viewer): Frame {
    this.snapshot = snapshot;
    this.viewer = viewer;
    if (snapshot.view !== this.lastView) {
      this.lastView = snapshot.view;
      this.viewVersion = snapshot.version;
    }
    if (this.seen === undefined || pace() === 0) {
      if (snapshot.view !== undefined) this.seen = snapshot.version;
    } else if (snapshot.version > this.seen) {
      this.take(snapshot.events.filter((event) => event.version > (this.seen ?? 0n)), viewer);
      this.seen = snapshot.version;
      if (!this.running && this.queue.length > 0) {
        // Until the first move's board comes, the board stays as it was (not the present yet).
        this.shown = this.drawn && { ...this.drawn, live: false, beat: [] };
        void this.run();
      }
    }
    this.drawn = this.shown ?? this.live();
    return this.drawn;
  }

  /** Skips what is left to show: the present at once. */
  skip(): void {
    if (!this.busy) return;
    this.generation++;
    this.queue = [];
    this.running = false;
    this.shown = undefined;
    window.clearTimeout(this.timer);
    void this.changed();
  }

  close(): void {
    this.generation++;
    window.clearTimeout(this.timer);
  }

  private live(): Frame {
    const snapshot = this.snapshot;
    return { version: snapshot?.version ?? 0n, view: snapshot?.view, live: true, events: snapshot?.events ?? [], beat: [] };
  }

  /** Splits `events` into beats, queued after those waiting. */
  private take(events: Event[], viewer: Viewer): void {
    for (const event of events) {
      const { beat, celebrate } = this.weigh(event);
      const others = event.seat === undefined || event.seat !== viewer.seat;
      const last = this.queue.at(-1);
      if (!beat) {
        // Nothing to show of its own: it joins the move before it (or, first, the next one's board).
        if (last !== undefined) {
          last.events.push(event);
          last.version = event.version;
          last.hold ||= celebrate;
          last.celebrate ||= celebrate;
        }
        continue;
      }
      this.queue.push({ version: event.version, events: [event], hold: (beat && others) || celebrate, celebrate });
    }
    if (this.queue.length > MOST_BEATS) this.queue = [];
  }

  private async run(): Promise<void> {
    const generation = this.generation;
    this.running = true;
    // Each move's board is asked for at once, and shown in turn.
    for (const beat of this.queue) beat.view ??= this.frameAt(beat);
    while (this.queue.some((beat) => beat.hold) && generation === this.generation) {
      const beat = this.queue.shift() as Beat;
      const view = await (beat.view ?? this.frameAt(beat)).catch(() => undefined);
      if (generation !== this.generation) return;
      for (const next of this.queue) next.view ??= this.frameAt(next);
      if (view === undefined) continue;
      const events = (this.snapshot?.events ?? []).filter((event) => event.version <= beat.version);
      this.shown = { version: beat.version, view, live: false, events, beat: beat.events };
      // The move stays on the board for its time from when it is drawn: a slow phone's
      // drawing (a layout, its pieces set travelling) does not eat into it.
      await this.changed();
      if (generation !== this.generation) return;
      const time = beat.celebrate ? pace() * 2.5 : beat.hold ? pace() : pace() / 2;
      await Promise.all([new Promise((resolve) => (this.timer = window.setTimeout(resolve, time))), this.said()]);
    }
    if (generation !== this.generation) return;
    this.queue = [];
    this.running = false;
    this.shown = undefined;
    void this.changed();
  }

  /** The board after `beat`: the live view when it is the present's, else the past's. */
  private frameAt(beat: Beat): Promise<GameView | undefined> {
    if (beat.version === this.viewVersion && this.lastView !== undefined) return Promise.resolve(this.lastView);
    return this.viewer?.viewAt(beat.version) ?? Promise.resolve(undefined);
  }
}
