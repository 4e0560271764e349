-- Migration: <short description>
-- Ticket:    <PROJ-123>
-- Tables:    <table> (~<row count> rows)
-- Expected:  <run time>
-- Rollback:  <statement(s) that undo this, or why none is possible>

SET lock_timeout = '5s';
SET statement_timeout = '60s';

-- Expand: additive, backwards-compatible changes only.
ALTER TABLE orders ADD COLUMN currency text;

ALTER TABLE orders
  ADD CONSTRAINT orders_currency_not_null CHECK (currency IS NOT NULL) NOT VALID;

-- In a separate migration, after the backfill:
--   ALTER TABLE orders VALIDATE CONSTRAINT orders_currency_not_null;
--   ALTER TABLE orders ALTER COLUMN currency SET NOT NULL;
--   ALTER TABLE orders DROP CONSTRAINT orders_currency_not_null;
