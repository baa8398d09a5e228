-- distinct_on with the order_by it must start with.
-- role: admin

-- statement 1 of 1
SELECT ((
    SELECT coalesce(json_agg((
          SELECT row_to_json("_t2")
          FROM (
            SELECT "_t1"."author_id" AS "author_id", "_t1"."title" AS "title") AS "_t2")
        ORDER BY "_t1"."__o0" ASC NULLS LAST, "_t1"."__o1" DESC NULLS LAST), '[]'::json)
    FROM (
      SELECT DISTINCT ON ("_t1"."author_id") "_t1".*, "_t1"."author_id" AS "__o0", "_t1"."rating" AS "__o1"
      FROM "public"."article" AS "_t1"
      WHERE (true) AND (true)
      ORDER BY "_t1"."author_id" ASC NULLS LAST, "_t1"."rating" DESC NULLS LAST) AS "_t1"))::text AS "f0";

-- response
-- {
--   "data": {
--     "article": [
--       {
--         "author_id": 1,
--         "title": "Notes on engines"
--       },
--       {
--         "author_id": 2,
--         "title": "C in practice"
--       },
--       {
--         "author_id": 3,
--         "title": "Unfinished"
--       }
--     ]
--   }
-- }
