-- Invoice and credit-note PDFs as served (issue 30): drawn once, then the stored bytes are served to every fetch of a
-- signed link. `view_hash` is the hash of everything the PDF shows (the document as issued, its number and date, the
-- payment state read from the invoice row): a fetch whose hash differs (a payment recorded since) draws it again and
-- replaces the row, so `etag` (the hash of the bytes) changes with it. One row per document; distributed by
-- company_id with the other company tables (src/db/distribute.ts).
CREATE TABLE document_files (
  company_id text NOT NULL REFERENCES companies (id),
  document_id text NOT NULL,
  view_hash text NOT NULL,
  etag text NOT NULL,
  pdf bytea NOT NULL,
  rendered_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, document_id)
);
