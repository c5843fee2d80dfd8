// How the play page calls a player back: the tab's title says "Your turn!", a
// notification says it too when the page is out of sight (once the player allowed
// them, with the bell), and a chime sounds; a round won and the game's end have their
// own tunes (sound.ts). The switches sit beside the status line: the voice reading the
// game aloud (speech.ts), the sounds, the speed of the moves shown (playback.ts), the bell.

import { glyphs } from "../../boards/icons";
import { fill, h } from "../../dom";
import { t } from "../../i18n";
import { onSoundChange, play, setSound, soundOn, type Sound } from "../../sound";
import { onSpeechChange, setSpeech, speechOn } from "../../speech";
import { SPEEDS, pace, setPace } from "./playback";

export class Signals {
  /** The switches: the sound, and the bell (notifications, where the browser has them). */
  readonly element: HTMLElement;
  private readonly soundButton: HTMLButtonElement;
  private readonly speechButton: HTMLButtonElement;
  private readonly speedButton: HTMLButtonElement;
  private readonly bell: HTMLButtonElement | null;
  private turnKey = "";
  private readonly stopListening: (() => void)[];

  constructor(private readonly gameId: string) {
    this.speechButton = h("button", { class: "icon-button speech-switch", attrs: { type: "button" }, on: { click: () => setSpeech(!speechOn()) } });
    this.soundButton = h("button", { class: "icon-button sound-switch", attrs: { type: "button" }, on: { click: () => setSound(!soundOn()) } });
    this.speedButton = h("button", { class: "icon-button speed-switch", attrs: { type: "button" }, on: { click: () => this.nextSpeed() } });
    this.bell =
      typeof Notification === "undefined"
        ? null
        : h("button", { class: "icon-button bell", attrs: { type: "button" }, on: { click: () => void this.askToNotify() } });
    this.element = h("div", { class: "signals" }, this.speechButton, this.soundButton, this.speedButton, this.bell);
    this.stopListening = [onSoundChange(() => this.drawSwitches()), onSpeechChange(() => this.drawSwitches())];
    this.drawSwitches();
  }

  close(): void {
    for (const stop of this.stopListening) stop();
  }

  /** The window's title and the call back: `turn` names whose turn it is at this screen
   * (the seat's name), `key` which seat: the call comes once when that turn begins (again
   * after another's turn, or for another seat at this screen). */
  update(title: string, turn: string | undefined, key: string): void {
    const wanted = turn ? `${t("play.titleTurn")} · ${title}` : `${title} · Ludothèque`;
    if (document.title !== wanted) document.title = wanted;
    if (turn === undefined) {
      this.turnKey = "";
      return;
    }
    if (key === this.turnKey) return;
    this.turnKey = key;
    play("turn");
    if (document.visibilityState === "hidden" && typeof Notification !== "undefined" && Notification.permission === "granted") {
      new Notification(t("play.titleTurn"), { body: t("play.yourTurn", { name: turn }), tag: `ludotheque-${this.gameId}` });
    }
  }

  sound(sound: Sound): void {
    play(sound);
  }

  private async askToNotify(): Promise<void> {
    if (typeof Notification === "undefined") return;
    if (Notification.permission === "default") await Notification.requestPermission();
    this.drawSwitches();
  }

  /** Slow, then as it was by default, then fast, then slow again. */
  private nextSpeed(): void {
    setPace(SPEEDS[(speedLevel() + 1) % SPEEDS.length]);
    this.drawSwitches();
  }

  private drawSwitches(): void {
    const speaking = speechOn();
    this.speechButton.setAttribute("aria-pressed", String(speaking));
    fill(this.speechButton, glyphs.speech(speaking));
    this.speechButton.setAttribute("aria-label", t("play.speech"));
    this.speechButton.title = speaking ? t("play.speechOn") : t("play.speechOff");
    const level = speedLevel();
    fill(this.speedButton, glyphs.speed(level));
    this.speedButton.dataset["speed"] = String(SPEEDS[level]);
    this.speedButton.setAttribute("aria-label", t("play.speed", { speed: t(SPEED_NAMES[level]) }));
    this.speedButton.title = t("play.speedAbout", { speed: t(SPEED_NAMES[level]) });
    const on = soundOn();
    this.soundButton.setAttribute("aria-pressed", String(on));
    fill(this.soundButton, glyphs.sound(on));
    this.soundButton.setAttribute("aria-label", t("play.sound"));
    this.soundButton.title = on ? t("play.soundOn") : t("play.soundOff");
    if (this.bell) {
      const permission = Notification.permission;
      fill(this.bell, glyphs.bell(permission === "granted"));
      this.bell.setAttribute("aria-label", t("play.notify"));
      this.bell.setAttribute("aria-pressed", String(permission === "granted"));
      this.bell.title = permission === "granted" ? t("play.notifyOn") : permission === "denied" ? t("play.notifyDenied") : t("play.notifyAsk");
      this.bell.disabled = permission === "denied";
    }
  }
}

const SPEED_NAMES = ["play.speedSlow", "play.speedNormal", "play.speedFast"] as const;

/** Which of SPEEDS this device's pace is (the nearest: a pace set by hand counts too). */
function speedLevel(): number {
  const now = pace();
  let best = 0;
  SPEEDS.forEach((speed, i) => {
    if (Math.abs(speed - now) < Math.abs(SPEEDS[best] - now)) best = i;
  });
  return best;
}
