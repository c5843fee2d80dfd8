// The web app's entry point: the shell (header, language, the live region) in
// index.html, and the page the address names, drawn into <main>.

import "./styles.css";

import { announce } from "./dom";
import { onLocaleChange, setLocale, t, translateStatic, type Locale } from "./i18n";
import { debugPage } from "./pages/debug";
import { gatePage, grownUp } from "./pages/gate";
import { joinPage } from "./pages/join";
import { lobbyPage } from "./pages/lobby";
import { playPage } from "./pages/play";
import { parseRoute, startRouter, type Route } from "./router";
import { fill, h } from "./dom";

const main = document.getElementById("main") as HTMLElement;
let leave: () => void = () => undefined;
let first = true;

function show(route: Route | undefined): void {
  leave();
  for (const link of document.querySelectorAll<HTMLAnchorElement>("[data-nav]")) {
    const current = route?.page === link.dataset["nav"];
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (route === undefined) {
    leave = () => undefined;
    fill(main, h("h1", { attrs: { tabindex: -1 } }, t("shell.notFound")), h("p", {}, h("a", { attrs: { href: "/" } }, t("shell.toLobby"))));
  } else if (route.page === "lobby") {
    leave = lobbyPage(main);
  } else if (route.page === "play") {
    leave = playPage(main, route.gameId);
  } else if (route.page === "join") {
    leave = joinPage(main, route.code);
  } else {
    // The debug panel is for grown-ups: a sum to do first (pages/gate.ts).
    const gameId = route.gameId;
    leave = grownUp() ? debugPage(main, gameId) : gatePage(main, () => debugPage(main, gameId));
  }
  const heading = main.querySelector("h1");
  document.title = heading?.textContent ? `${heading.textContent} · Ludothèque` : "Ludothèque";
  // Moving focus to the new page's heading tells screen readers the page changed
  // (not on the first load: the browser starts at the top anyway).
  if (!first) {
    heading?.focus();
    announce(document.title);
  }
  first = false;
}

for (const button of document.querySelectorAll<HTMLButtonElement>("[data-locale]")) {
  button.addEventListener("click", () => setLocale(button.dataset["locale"] as Locale));
}
onLocaleChange(() => show(parseRoute(location.pathname)));
translateStatic(document);
startRouter(show);
