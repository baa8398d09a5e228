-- A tracked set-returning function with its arguments, and a computed field.
-- role: admin

-- statement 1 of 1
SELECT ((
    SELECT coalesce(json_agg((
          SELECT row_to_json("_t4")
          FROM (
            SELECT "_t1"."title" AS "title", (
              SELECT (
                SELECT row_to_json("_t3")
                FROM (
                  SELECT "public"."author_label"(ROW("_t2"."id", "_t2"."name", "_t2"."email", "_t2"."is_active", "_t2"."profile", "_t2"."tags", "_t2"."created_at")::"public"."author") AS "label") AS "_t3")
              FROM "public"."author" AS "_t2"
              WHERE (("_t2"."id" = "_t1"."author_id")) AND (true)
              LIMIT 1) AS "author") AS "_t4")
        ORDER BY "_t1"."__o0" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT "_t1".*, "_t1"."id" AS "__o0"
      FROM "public"."search_articles"($1::"pg_catalog"."text") AS "_t1"
      WHERE (true) AND (true)
      ORDER BY "_t1"."id" ASC NULLS LAST) AS "_t1"))::text AS "f0";
-- parameters: ["on"]

-- response
-- {
--   "data": {
--     "search_articles": [
--       {
--         "title": "Notes on engines",
--         "author": {
--           "label": "Ada <ada@example.com>"
--         }
--       },
--       {
--         "title": "Draft on loops",
--         "author": {
--           "label": "Ada <ada@example.com>"
--         }
--       }
--     ]
--   }
-- }
