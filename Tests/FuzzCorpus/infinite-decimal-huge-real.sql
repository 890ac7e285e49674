-- An infinite Decimal read as 0 with no error; a huge REAL in an integer column.
UPDATE "FuzzOwner" SET "price" = 9e999;
UPDATE "FuzzItem" SET "count" = 9.3e18;
