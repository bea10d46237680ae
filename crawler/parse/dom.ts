/** The few fields of a DOM node (cheerio's domhandler) that the parsers' own walks read. */
export type DomNode = { type: string; name?: string; data?: string; attribs?: Record<string, string>; children?: DomNode[] };

/** The text under a node (CDATA included; comments not). */
export function textOf(node: DomNode): string {
  if (node.type === 'text') return node.data ?? '';
  return (node.children ?? []).map(textOf).join('');
}
