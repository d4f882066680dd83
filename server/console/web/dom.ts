// The page's building blocks. Every value is set as text, never as HTML:
// the trace holds whatever anyone posted to the captura receiver.

/** The element with this id; the page has every one the console asks for. */
export function $<E extends HTMLElement = HTMLElement>(id: string): E {
  return document.getElementById(id) as E;
}

/** An input, select or textarea by id. */
export const field = (id: string) => $<HTMLInputElement>(id);

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: unknown,
  attrs: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  return node;
}

export function button(
  text: string,
  onClick: (event: MouseEvent) => void,
  attrs: Record<string, string> = {},
): HTMLButtonElement {
  const made = el('button', text, { type: 'button', ...attrs });
  made.addEventListener('click', onClick);
  return made;
}

export function cell(content: unknown): HTMLTableCellElement {
  const td = el('td');
  if (content instanceof Node) td.append(content);
  else td.textContent = content === undefined || content === null ? '' : String(content);
  return td;
}

/** An id that opens what it names: the URL keeps it (#ses_…, #evt_…), so it can be shared and reloaded. */
export const idLink = (id: string) => el('a', id, { href: `#${id}`, class: 'id' });

/** A URL that may break after a slash and, only when a part cannot fit a line, inside it: an id stays whole where it can. */
export function urlText(url: string): HTMLElement {
  const code = el('code', undefined, { class: 'url' });
  for (const part of url.split(/(?<=\/)/)) code.append(part, el('wbr'));
  return code;
}

/** A button that copies `text`, saying so for a moment. */
export function copyButton(label: string, text: string): HTMLButtonElement {
  const copy = button(`Copy ${label}`, async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = el('textarea', text);
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    copy.textContent = 'Copied';
    setTimeout(() => (copy.textContent = `Copy ${label}`), 1500);
  });
  return copy;
}

/** A table in a scrollable region, with a caption and a header row. */
export function table(caption: string, head: string[], rows: unknown[][]): HTMLDivElement {
  const wrap = el('div', undefined, { class: 'scroll', role: 'region', 'aria-label': caption, tabindex: '0' });
  const made = el('table');
  made.append(el('caption', caption));
  const tr = el('tr');
  for (const name of head) tr.append(el('th', name, { scope: 'col' }));
  const thead = el('thead');
  thead.append(tr);
  const tbody = el('tbody');
  for (const values of rows) {
    const row = el('tr');
    for (const value of values) row.append(cell(value));
    tbody.append(row);
  }
  made.append(thead, tbody);
  wrap.append(made);
  return wrap;
}

/** A definition list's adder: a name, then its value (text, a node, or several). */
export function definitions(list: HTMLElement) {
  return (name: string, value: unknown) => {
    if (value === undefined || value === null) return;
    list.append(el('dt', name));
    const dd = el('dd');
    if (Array.isArray(value)) dd.append(...(value as Array<Node | string>));
    else if (value instanceof Node) dd.append(value);
    else dd.textContent = String(value);
    list.append(dd);
  };
}
