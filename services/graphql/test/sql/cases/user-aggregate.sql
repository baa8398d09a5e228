-- A role's aggregate: counted over the rows its filter lets it see.
-- role: user, session: {"x-hasura-user-id":"2"}

-- statement 1 of 1
SELECT ((
    SELECT json_build_object($1::text, json_build_object($2::text, count(*)))
    FROM (
      SELECT "_t1".*
      FROM "public"."article" AS "_t1"
      WHERE (((((("_t1"."published" = $3))) OR ((("_t1"."author_id" = $4::"int4")))))) AND (true)) AS "_t1"
    GROUP BY ()))::text AS "f0", ((
    SELECT coalesce(json_agg((
          SELECT row_to_json("_t4")
          FROM (
            SELECT "_t2"."text" AS "text") AS "_t4")
        ORDER BY "_t2"."__o0" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT "_t2".*, "_t2"."id" AS "__o0"
      FROM "public"."comment" AS "_t2"
      WHERE ((EXISTS (
            SELECT 1
            FROM "public"."article" AS "_t3"
            WHERE (("_t3"."id" = "_t2"."article_id")) AND (true) AND ((("_t3"."published" = $5)))))) AND (true)
      ORDER BY "_t2"."id" ASC NULLS LAST) AS "_t2"))::text AS "f1";
-- parameters: ["aggregate","count",true,"2",true]

-- response
-- {
--   "data": {
--     "article_aggregate": {
--       "aggregate": {
--         "count": 2
--       }
--     },
--     "comment": [
--       {
--         "text": "great"
--       },
--       {
--         "text": "agreed"
--       },
--       {
--         "text": "classic"
--       }
--     ]
--   }
-- }
