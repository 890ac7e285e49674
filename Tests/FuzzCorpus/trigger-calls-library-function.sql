-- A trigger in the file calling the library's SQL functions on every insert.
CREATE TRIGGER "crafted" AFTER INSERT ON "FuzzOwner" BEGIN SELECT osd_contains(NEW."name", 'x'); END;
