export { extractDocument } from './extract.ts';
export { mayBeDocument, sniffFormat, type SniffedFormat } from './sniff.ts';
export {
  DOCUMENT_LIMITS,
  DocumentRefusal,
  type DocumentFacts,
  type DocumentFormat,
  type DocumentPage,
  type ExtractOptions,
  type RefusalReason,
} from './types.ts';
