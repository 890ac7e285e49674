-- A history key range no save writes: overflow or a multi-terabyte allocation in fetchHistory.
UPDATE "Z_HISTORYCHANGE" SET "Z_KEYS" = '0-9223372036854775807';
