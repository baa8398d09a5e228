-- A role's select: its row filter with a session variable, its row limit, and the filters of
-- the tables reached through relationships.
-- role: user, session: {"x-hasura-user-id":"1"}

-- statement 1 of 1
SELECT ((
    SELECT coalesce(json_agg((
          SELECT row_to_json("_t4")
          FROM (
            SELECT "_t1"."title" AS "title", "_t1"."published" AS "published", (
              SELECT (
                SELECT row_to_json("_t3")
                FROM (
                  SELECT "_t2"."name" AS "name") AS "_t3")
              FROM "public"."author" AS "_t2"
              WHERE (("_t2"."id" = "_t1"."author_id")) AND ((("_t2"."is_active" = $1)))
              LIMIT 1) AS "author") AS "_t4")
        ORDER BY "_t1"."__o0" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT "_t1".*, "_t1"."id" AS "__o0"
      FROM "public"."article" AS "_t1"
      WHERE (((((("_t1"."published" = $2))) OR ((("_t1"."author_id" = $3::"int4")))))) AND (true)
      ORDER BY "_t1"."id" ASC NULLS LAST
      LIMIT $4) AS "_t1"))::text AS "f0";
-- parameters: [true,true,"1",10]

-- response
-- {
--   "data": {
--     "article": [
--       {
--         "title": "Notes on engines",
--         "published": true,
--         "author": {
--           "name": "Ada"
--         }
--       },
--       {
--         "title": "Draft on loops",
--         "published": false,
--         "author": {
--           "name": "Ada"
--         }
--       },
--       {
--         "title": "C in practice",
--         "published": true,
--         "author": {
--           "name": "Brian"
--         }
--       }
--     ]
--   }
-- }
