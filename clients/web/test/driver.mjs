// The browser side of the web app's tests (tests/support/browser.py): one headless
// Chromium (Debian's /usr/bin/chromium, driven by puppeteer-core: nothing downloads a
// browser) for the whole test session, and a line protocol on stdin/stdout. Each line
// in is {id, op, page?, ...arguments}; each line out is {id, ok, result} or {id, ok:
// false, error}. Pages are kept by number and reused between tests.
//
// Every page records what a test must see as a failure: console errors, uncaught
// exceptions, Content-Security-Policy violations and requests to another origin.
//
// The app shows the other players' moves one after another at a child's pace; a page
// here shows them at once (localStorage "ludotheque.pace" = 0) unless a test set a pace.
//
// What a page reads aloud goes through the browser's own speechSynthesis, as it would
// for a child; every page also notes each sentence given to it in `window.spoken` (its
// text, language and rate) before letting it speak (headless Chromium has no voice: the
// sentence fails at once, which the page takes as said).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

import puppeteer from "puppeteer-core";

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

const [executablePath, userDataDir] = process.argv.slice(2);
const browser = await puppeteer.launch({
  executablePath,
  userDataDir,
  headless: true,
  // A call the browser never answers fails the test in a minute, not puppeteer's three.
  protocolTimeout: 60_000,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--lang=en-GB",
  ],
});

const pages = new Map();
let nextPage = 1;

// An isolated page has a browser context of its own (its own storage and cookies): a
// second person at another computer, who holds none of the first one's seats.
async function newPage({ width, height, mobile, isolated }) {
  const context = isolated ? await browser.createBrowserContext() : undefined;
  const page = await (context ?? browser).newPage();
  const record = { page, problems: [], origin: "", context };
  await page.setViewport({ width, height, isMobile: Boolean(mobile), hasTouch: Boolean(mobile), deviceScaleFactor: 1 });
  page.on("console", (message) => {
    if (message.type() === "error") record.problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => record.problems.push(`uncaught: ${error.message}`));
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (["data:", "blob:"].includes(url.protocol)) return;
    if (record.origin && url.origin !== record.origin) record.problems.push(`request to another origin: ${url.href}`);
  });
  // Content-Security-Policy violations are reported to the page, not the console.
  await page.evaluateOnNewDocument(() => {
    document.addEventListener("securitypolicyviolation", (event) =>
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`),
    );
    window.spoken = [];
    if (typeof speechSynthesis !== "undefined") {
      const speak = speechSynthesis.speak.bind(speechSynthesis);
      speechSynthesis.speak = (utterance) => {
        window.spoken.push({ text: utterance.text, lang: utterance.lang, rate: utterance.rate });
        speak(utterance);
      };
    }
    try {
      if (localStorage.getItem("ludotheque.pace") === null) localStorage.setItem("ludotheque.pace", "0");
    } catch {
      // a page without storage (about:blank)
    }
  });
  const id = nextPage++;
  pages.set(id, record);
  return id;
}

async function visible(page, selector, timeout) {
  return page.waitForSelector(selector, { visible: true, timeout });
}

const operations = {
  newPage,
  async closePage({ page }) {
    const record = pages.get(page);
    await record.page.close();
    await record.context?.close();
    pages.delete(page);
  },
  async viewport({ page, width, height, mobile }) {
    await pages.get(page).page.setViewport({ width, height, isMobile: Boolean(mobile), hasTouch: Boolean(mobile) });
  },
  async goto({ page, url }) {
    const record = pages.get(page);
    record.origin = new URL(url).origin;
    const response = await record.page.goto(url, { waitUntil: "domcontentloaded" });
    return { status: response?.status() ?? 0, headers: response?.headers() ?? {} };
  },
  async waitFor({ page, selector, timeout }) {
    // A page behind another runs no animation frames, which a wait for a visible element polls on.
    await pages.get(page).page.bringToFront();
    await visible(pages.get(page).page, selector, timeout);
  },
  async waitForFunction({ page, expression, timeout }) {
    const handle = await pages.get(page).page.waitForFunction(expression, { timeout, polling: "mutation" });
    return handle.jsonValue();
  },
  /** Clicks `selector`; if the page redraws it between finding and clicking, finds it again. */
  async click({ page, selector, timeout }) {
    for (let attempt = 1; ; attempt++) {
      const element = await visible(pages.get(page).page, selector, timeout);
      try {
        await element.click();
        return;
      } catch (error) {
        // Redrawn under the pointer (a new turn, a session resumed): the element found
        // left the page, or is not where it was.
        const redrawn = ["detached", "not clickable"].some((words) => String(error).includes(words));
        if (attempt >= 5 || !redrawn) throw error;
      }
    }
  },
  async type({ page, selector, text, timeout }) {
    const element = await visible(pages.get(page).page, selector, timeout);
    await element.click({ count: 3 });
    await element.type(text);
  },
  async select({ page, selector, value, timeout }) {
    await visible(pages.get(page).page, selector, timeout);
    await pages.get(page).page.select(selector, value);
  },
  async focus({ page, selector, timeout }) {
    await visible(pages.get(page).page, selector, timeout);
    await pages.get(page).page.focus(selector);
  },
  async press({ page, key }) {
    await pages.get(page).page.keyboard.press(key);
  },
  /** Emulates CSS media features, e.g. [{ name: "prefers-reduced-motion", value: "reduce" }]. */
  async emulate({ page, features }) {
    await pages.get(page).page.emulateMediaFeatures(features);
  },
  /** Grants the page's origin `permissions` (e.g. ["notifications"]). */
  async grant({ page, origin, permissions }) {
    const record = pages.get(page);
    await (record.context ?? browser.defaultBrowserContext()).overridePermissions(origin, permissions);
  },
  /** Taps `selector` as a finger would (a touch, not a mouse click). */
  async tap({ page, selector, timeout }) {
    const element = await visible(pages.get(page).page, selector, timeout);
    await element.tap();
  },
  /** Brings the page to the front: a page behind another draws no frames, and the waits
   * that poll on animation frames would never end there. */
  async front({ page }) {
    await pages.get(page).page.bringToFront();
  },
  /** Waits until the page's animations (a piece travelling) are over. */
  async settle({ page }) {
    await pages.get(page).page.evaluate(() => Promise.all(document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity).map((a) => a.finished.catch(() => undefined))));
  },
  async evaluate({ page, expression }) {
    return pages.get(page).page.evaluate(expression);
  },
  async url({ page }) {
    return pages.get(page).page.url();
  },
  async screenshot({ page, path, fullPage }) {
    // A page behind another one (two people's pages side by side) draws no frames, and
    // capturing it would wait for one: it comes to the front first.
    await pages.get(page).page.bringToFront();
    await pages.get(page).page.screenshot({ path, fullPage: Boolean(fullPage) });
  },
  /** Drops a file onto `selector` as a person would drag one from their desktop. */
  async drop({ page, selector, name, content, timeout }) {
    const target = await visible(pages.get(page).page, selector, timeout);
    await target.evaluate(
      (element, fileName, text) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([text], fileName, { type: "application/jsonl" }));
        for (const type of ["dragenter", "dragover", "drop"]) {
          element.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
        }
      },
      name,
      content,
    );
  },
  /** axe-core's violations, of every impact (minor to critical). (page.evaluate is not
   * subject to the page's CSP, which rightly forbids injecting a script tag.) */
  async axe({ page }) {
    const target = pages.get(page).page;
    await target.evaluate(AXE_SOURCE);
    return target.evaluate(async () => {
      const result = await globalThis.axe.run(document, { resultTypes: ["violations"] });
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
    });
  },
  /** What went wrong on the page since the last call (and forget it). */
  async problems({ page }) {
    const record = pages.get(page);
    const found = record.problems;
    record.problems = [];
    return found;
  },
  async quit() {
    await browser.close();
    setImmediate(() => process.exit(0));
  },
};

const lines = createInterface({ input: process.stdin });
lines.on("line", async (line) => {
  const { id, op, ...args } = JSON.parse(line);
  try {
    const result = await operations[op](args);
    process.stdout.write(`${JSON.stringify({ id, ok: true, result: result ?? null })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ id, ok: false, error: String(error?.stack ?? error) })}\n`);
  }
});
lines.on("close", () => void browser.close().then(() => process.exit(0)));
process.stdout.write(`${JSON.stringify({ ready: true, version: await browser.version() })}\n`);
