/**
 * Test fixture: a stored document with every field filled, for the index's tests. Only what a
 * test is about needs giving; `bytes` defaults to the text's length, `hash` to the id.
 */
import type { StoredDocument } from '../model/index.ts';

export function storedDocument(id: number, fields: Partial<StoredDocument> & Pick<StoredDocument, 'url' | 'title' | 'text'>): StoredDocument {
  return {
    id,
    description: '',
    headings: [],
    contentType: 'text/html',
    bytes: fields.text.length,
    truncated: false,
    httpStatus: 200,
    fetchedAt: 0,
    hash: String(id),
    ...fields,
  };
}
