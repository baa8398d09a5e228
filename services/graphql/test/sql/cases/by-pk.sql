-- A row by its primary key.
-- role: admin

-- statement 1 of 1
SELECT ((
    SELECT (
      SELECT row_to_json("_t4")
      FROM (
        SELECT "_t1"."title" AS "title", (
          SELECT (
            SELECT row_to_json("_t3")
            FROM (
              SELECT "_t2"."name" AS "name") AS "_t3")
          FROM "public"."author" AS "_t2"
          WHERE (("_t2"."id" = "_t1"."author_id")) AND (true)
          LIMIT 1) AS "author") AS "_t4")
    FROM "public"."article" AS "_t1"
    WHERE ("_t1"."id" = $1) AND (true)
    LIMIT 1))::text AS "f0";
-- parameters: [3]

-- response
-- {
--   "data": {
--     "article_by_pk": {
--       "title": "C in practice",
--       "author": {
--         "name": "Brian"
--       }
--     }
--   }
-- }
