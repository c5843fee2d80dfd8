// The browser side of tests/web/facts.py: what a family meets on the page as it is,
// measured. Each list names the elements at fault (tag, classes, words), empty when all is
// well: tap targets under 44 × 44 CSS px, text cut off, SVG labels under 12 CSS px on
// screen, and the board, the player's own pieces and the moves offered out of the first
// screen (the page is scrolled to the top first).
(() => {
  window.scrollTo(0, 0);
  const W = innerWidth, H = innerHeight;
  const name = (el) => {
    const words = (el.getAttribute('aria-label') || el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 40);
    const cls = typeof el.className === 'string' ? el.className : (el.className?.baseVal ?? '');
    return `${el.tagName.toLowerCase()}${cls ? '.' + cls.trim().split(/\s+/).join('.') : ''} "${words}"`;
  };
  const shown = (el) => {
    if (el.closest('[hidden], [aria-hidden="true"] svg, .visually-hidden')) return false;
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) return false;
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.display === 'none' || style.visibility === 'hidden' || Number(style.opacity) === 0) return false;
    }
    return true;
  };
  const inView = (r) => r.top >= -1 && r.left >= -1 && r.bottom <= H + 1 && r.right <= W + 1;
  // Tap targets: a radio or a checkbox is tapped through its label, as one row.
  const targetSelector = 'a[href], button, select, input:not([type=hidden]), summary, [role=button], [tabindex="0"], .friend-alias';
  const small = [];
  for (const el of document.querySelectorAll(targetSelector)) {
    if (el.classList.contains('skip-link') || el.closest('.skip-link')) continue;
    let box = el;
    if (el.matches('input[type=radio], input[type=checkbox]')) box = el.closest('.kind-choice, .preset-choice, .check') || el;
    else if (el.matches('input') && getComputedStyle(el).opacity === '0') continue;
    if (!shown(box)) continue;
    const r = box.getBoundingClientRect();
    if (r.width < 43.5 || r.height < 43.5) small.push(`${name(el)} ${Math.round(r.width)}x${Math.round(r.height)}`);
  }
  // Text cut off: a box narrower than its text with its overflow hidden, an ellipsis, or
  // the page wider than the screen.
  const clipped = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el instanceof SVGElement || !shown(el) || !el.textContent.trim()) continue;
    const style = getComputedStyle(el);
    const hides = style.overflowX !== 'visible' || style.textOverflow === 'ellipsis';
    if (hides && el.scrollWidth > el.clientWidth + 1 && !['auto', 'scroll'].includes(style.overflowX)) clipped.push(name(el));
  }
  if (document.documentElement.scrollWidth > W + 1) clipped.push(`the page is ${document.documentElement.scrollWidth}px wide`);
  // An SVG label: its size on screen, and whether it stays inside its drawing.
  const smallLabels = [];
  for (const text of document.querySelectorAll('svg text')) {
    if (!shown(text) || !text.textContent.trim()) continue;
    const matrix = text.getScreenCTM();
    const size = parseFloat(text.getAttribute('font-size') || getComputedStyle(text).fontSize) * Math.hypot(matrix.a, matrix.b);
    if (size < 11.95) smallLabels.push(`${name(text)} ${size.toFixed(1)}px`);
    const box = text.getBoundingClientRect();
    const svg = text.ownerSVGElement.getBoundingClientRect();
    if (box.left < svg.left - 1 || box.right > svg.right + 1 || box.top < svg.top - 1 || box.bottom > svg.bottom + 1) clipped.push(`${name(text)} outside its drawing`);
  }
  // The board, the player's own pieces and the moves offered, on the first screen.
  const outOfView = [];
  const board = document.querySelector('.play-board:not([hidden]) .board');
  if (board && shown(board) && !inView(board.getBoundingClientRect())) outOfView.push(`the board ${JSON.stringify(board.getBoundingClientRect())}`);
  const parts = '.play-board [data-own], .play-board [data-choice], .play-board .prompt[data-prompt], .play-board .board > *, .curtain button, .outcome button';
  for (const el of document.querySelectorAll(parts)) {
    if (shown(el) && !inView(el.getBoundingClientRect())) outOfView.push(`${name(el)} at ${Math.round(el.getBoundingClientRect().top)}..${Math.round(el.getBoundingClientRect().bottom)}`);
  }
  const choices = [...document.querySelectorAll('.play-board [data-choice]')].filter(shown).length;
  return { width: W, height: H, small, clipped, smallLabels, outOfView, choices };
})()
