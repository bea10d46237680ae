#!/usr/bin/env python3
"""The Xapian anchor of bench/relevance: the same pages and fields, ranked by Xapian's BM25.

Reads from stdin one JSON object a line, a page each: {"id", "fields": {field: text}}, each field
indexed with its weight (the wdf increment: Trawl's field weights, times two, as whole numbers)
and Xapian's English stemmer; then an empty line; then one query a line, each answered on stdout
with a JSON array of the best ten page ids. All words must match (AND); if no page has them all,
pages with any of them are ranked instead, as the other engines are asked.

Debian: apt-get install python3-xapian (Xapian 1.4).
"""
import json
import sys

import xapian

K = 10


def main() -> None:
    db = xapian.WritableDatabase("", xapian.DB_BACKEND_INMEMORY)
    indexer = xapian.TermGenerator()
    indexer.set_stemmer(xapian.Stem("english"))
    for line in sys.stdin:
        line = line.strip()
        if not line:
            break
        page = json.loads(line)
        doc = xapian.Document()
        indexer.set_document(doc)
        for field, text in page["fields"].items():
            indexer.index_text(text or "", int(page["weights"][field]))
            indexer.increase_termpos()
        db.replace_document(int(page["id"]), doc)
    parser = xapian.QueryParser()
    parser.set_stemmer(xapian.Stem("english"))
    parser.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
    parser.set_database(db)
    enquire = xapian.Enquire(db)
    enquire.set_weighting_scheme(xapian.BM25Weight())
    print(json.dumps({"ready": db.get_doccount()}), flush=True)
    for line in sys.stdin:
        q = line.rstrip("\n")
        ids = []
        for op in (xapian.Query.OP_AND, xapian.Query.OP_OR):
            parser.set_default_op(op)
            try:
                query = parser.parse_query(q, 0)
            except xapian.QueryParserError:
                query = xapian.Query()
            enquire.set_query(query)
            ids = [m.docid for m in enquire.get_mset(0, K)]
            if ids:
                break
        print(json.dumps(ids), flush=True)


if __name__ == "__main__":
    main()
