-- An _in list is one array parameter: lists of any length share this SQL text.
-- role: admin

-- statement 1 of 1
SELECT ((
    SELECT coalesce(json_agg((
          SELECT row_to_json("_t2")
          FROM (
            SELECT "_t1"."id" AS "id", "_t1"."title" AS "title") AS "_t2")
        ORDER BY "_t1"."__o0" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT "_t1".*, "_t1"."id" AS "__o0"
      FROM "public"."article" AS "_t1"
      WHERE (true) AND ((("_t1"."id" = ANY($1))) AND ((NOT ("_t1"."title" = ANY($2)))))
      ORDER BY "_t1"."id" ASC NULLS LAST) AS "_t1"))::text AS "f0";
-- parameters: ["{\"1\",\"3\",\"4\"}","{\"Unfinished\"}"]

-- response
-- {
--   "data": {
--     "article": [
--       {
--         "id": 1,
--         "title": "Notes on engines"
--       },
--       {
--         "id": 3,
--         "title": "C in practice"
--       }
--     ]
--   }
-- }
