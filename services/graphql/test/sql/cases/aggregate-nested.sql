-- An array relationship's aggregate inside a list, ordered by that aggregate.
-- role: admin

-- statement 1 of 1
SELECT ((
    SELECT coalesce(json_agg((
          SELECT row_to_json("_t4")
          FROM (
            SELECT "_t1"."name" AS "name", (
              SELECT json_build_object($1::text, json_build_object($2::text, count(*), $3::text, json_build_object($4::text, max("_t3"."rating"))))
              FROM (
                SELECT "_t3".*
                FROM "public"."article" AS "_t3"
                WHERE (("_t3"."author_id" = "_t1"."id")) AND (true) AND ((("_t3"."rating" IS NOT NULL)))) AS "_t3"
              GROUP BY ()) AS "articles_aggregate") AS "_t4")
        ORDER BY "_t1"."__o0" DESC NULLS FIRST, "_t1"."__o1" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT "_t1".*, (
        SELECT count(*)
        FROM "public"."article" AS "_t2"
        WHERE (("_t2"."author_id" = "_t1"."id")) AND (true)) AS "__o0", "_t1"."id" AS "__o1"
      FROM "public"."author" AS "_t1"
      WHERE (true) AND (true)
      ORDER BY (
        SELECT count(*)
        FROM "public"."article" AS "_t2"
        WHERE (("_t2"."author_id" = "_t1"."id")) AND (true)) DESC NULLS FIRST, "_t1"."id" ASC NULLS LAST) AS "_t1"))::text AS "f0";
-- parameters: ["aggregate","count","max","rating"]

-- response
-- {
--   "data": {
--     "author": [
--       {
--         "name": "Ada",
--         "articles_aggregate": {
--           "aggregate": {
--             "count": 1,
--             "max": {
--               "rating": 5
--             }
--           }
--         }
--       },
--       {
--         "name": "Brian",
--         "articles_aggregate": {
--           "aggregate": {
--             "count": 1,
--             "max": {
--               "rating": 4
--             }
--           }
--         }
--       },
--       {
--         "name": "Chris",
--         "articles_aggregate": {
--           "aggregate": {
--             "count": 1,
--             "max": {
--               "rating": 2
--             }
--           }
--         }
--       }
--     ]
--   }
-- }
