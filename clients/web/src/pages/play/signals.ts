// How the play page calls a player back: the tab's title says "Your turn!", a
// notification says it too when the page is out of sight (once the player allowed
// them, with the bell), and a chime sounds; a round won and the game's end have their
// own tunes (sound.ts). The sound switch and the bell sit beside the status line.

import { glyphs } from "../../boards/icons";
import { fill, h } from "../../dom";
import { t } from "../../i18n";
import { onSoundChange, play, setSound, soundOn, type Sound } from "../../sound";

export class Signals {
  /** The switches: the sound, and the bell (notifications, where the browser has them). */
  readonly element: HTMLElement;
  private readonly soundButton: HTMLButtonElement;
  private readonly bell: HTMLButtonElement | null;
  private turnKey = "";
  private readonly stopListening: () => void;

  constructor(private readonly gameId: string) {
    this.soundButton = h("button", { class: "icon-button sound-switch", attrs: { type: "button" }, on: { click: () => setSound(!soundOn()) } });
    this.bell =
      typeof Notification === "undefined"
        ? null
        : h("button", { class: "icon-button bell", attrs: { type: "button" }, on: { click: () => void this.askToNotify() } });
    this.element = h("div", { class: "signals" }, this.bell, this.soundButton);
    this.stopListening = onSoundChange(() => this.drawSwitches());
    this.drawSwitches();
  }

  close(): void {
    this.stopListening();
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

  private drawSwitches(): void {
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
