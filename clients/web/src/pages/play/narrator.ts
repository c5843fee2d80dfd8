// What the play page says aloud (speech.ts), in the words the page shows: each event as
// the board shows it (the server's description: a robot's move, a skipped turn, a round
// won), "Your turn, Cléo!" and what to pick, a hint's reason asked for, the curtain's "Pass the device to Papa",
// and how the game ended. Each once: an event by its version (what happened before the
// page opened is not read), a prompt until it changes, the curtain per turn.
//
// The events read are those of the page's log (the one seat's, or the table's with
// several people at one screen): nothing is said aloud that a seat at the table may not
// know.

import type { Event } from "@ludotheque/client";

import { t } from "../../i18n";
import { say } from "../../speech";

export class Narrator {
  /** The last event's version read (undefined: nothing seen yet). */
  private readUpTo: bigint | undefined;
  private turn: { key: string; name: string } | undefined;
  private turnSaid = "";
  private promptSaid = "";
  private curtainSaid = "";
  private outcomeSaid = "";
  private eventsSaid = "";

  /** Reads the events of `log` up to `version` (the move on the board) not read yet. */
  events(log: readonly Event[], version: bigint): void {
    if (this.readUpTo === undefined) {
      this.readUpTo = version;
      return;
    }
    const from = this.readUpTo;
    const fresh = log.filter((event) => event.version > from && event.version <= version);
    if (version > from) this.readUpTo = version;
    const words = fresh.map((event) => event.description?.text ?? "").filter(Boolean);
    if (words.length === 0) return;
    this.eventsSaid = words.join(" ");
    void say(this.eventsSaid);
  }

  /** Whose turn it is at this screen now (undefined: nobody's here); `key` tells turns apart. */
  setTurn(turn: { key: string; name: string } | undefined): void {
    this.turn = turn;
    if (turn !== undefined) return;
    this.promptSaid = "";
    this.turnSaid = "";
  }

  /** What to pick now, said once (with "Your turn, Cléo!" as the turn begins). */
  prompt(text: string): void {
    const turn = this.turn;
    if (turn === undefined || text === "" || text === this.promptSaid) return;
    this.promptSaid = text;
    if (turn.key !== this.turnSaid) {
      this.turnSaid = turn.key;
      void say(`${t("play.yourTurn", { name: turn.name })} ${text}`);
    } else void say(text);
  }

  /** A hint's reason, asked for by a tap on "Help me": said at once. */
  hint(reason: string): void {
    void say(reason, { now: true });
  }

  /** The curtain came down for `seat` (the turn's `key`, called `name`) at `version`. */
  curtain(key: string, version: bigint, name: string): void {
    if (`${key}:${version}` === this.curtainSaid) return;
    this.curtainSaid = `${key}:${version}`;
    this.turnSaid = key; // behind the curtain, "Pass the device to Papa" said whose turn
    void say(`${t("play.passTo", { name })}. ${t("play.curtainAbout", { name })}`);
  }

  /** How the game ended (unless the last event, just read, said it in the same words). */
  outcome(text: string): void {
    if (text === this.outcomeSaid) return;
    this.outcomeSaid = text;
    if (!this.eventsSaid.endsWith(text)) void say(text);
  }
}
