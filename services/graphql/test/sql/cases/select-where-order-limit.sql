-- A filtered, ordered and paged list.
-- role: admin

-- statement 1 of 1
SELECT ((
    SELECT coalesce(json_agg((
          SELECT row_to_json("_t2")
          FROM (
            SELECT "_t1"."id" AS "id", "_t1"."name" AS "name") AS "_t2")
        ORDER BY "_t1"."__o0" DESC NULLS FIRST), '[]'::json)
    FROM (
      SELECT "_t1".*, "_t1"."name" AS "__o0"
      FROM "public"."author" AS "_t1"
      WHERE (true) AND ((("_t1"."is_active" = $1)) AND (("_t1"."name" ILIKE $2)))
      ORDER BY "_t1"."name" DESC NULLS FIRST
      LIMIT $3
      OFFSET $4) AS "_t1"))::text AS "f0";
-- parameters: [true,"%a%",2,0]

-- response
-- {
--   "data": {
--     "author": [
--       {
--         "id": 2,
--         "name": "Brian"
--       },
--       {
--         "id": 1,
--         "name": "Ada"
--       }
--     ]
--   }
-- }
