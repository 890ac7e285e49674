-- A key counter at the last key there is: the next insert overflowed (SIGILL on save).
UPDATE "Z_PRIMARYKEY" SET "Z_MAX" = 9223372036854775807;
