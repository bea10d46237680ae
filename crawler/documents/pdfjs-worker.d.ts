// pdfjs-dist ships no types for its worker module; pdfjs.ts only hands its export to pdf.js.
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
