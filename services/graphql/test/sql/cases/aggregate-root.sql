-- A root aggregate with count, distinct count over a column, sum/avg/max and nodes.
-- role: admin

-- statement 1 of 1
SELECT ((
    SELECT json_build_object($1::text, json_build_object($2::text, count(*), $3::text, count(DISTINCT "_t1"."author_id"), $4::text, json_build_object($5::text, sum("_t1"."rating")), $6::text, json_build_object($7::text, avg("_t1"."rating")::float8), $8::text, json_build_object($9::text, max("_t1"."title"), $10::text, max("_t1"."rating"))), $11::text, coalesce(json_agg((
            SELECT row_to_json("_t2")
            FROM (
              SELECT "_t1"."id" AS "id") AS "_t2")), '[]'::json))
    FROM (
      SELECT "_t1".*
      FROM "public"."article" AS "_t1"
      WHERE (true) AND ((("_t1"."published" = $12)))) AS "_t1"
    GROUP BY ()))::text AS "f0";
-- parameters: ["aggregate","count","authors","sum","rating","avg","rating","max","title","rating","nodes",true]

-- response
-- {
--   "data": {
--     "article_aggregate": {
--       "aggregate": {
--         "count": 2,
--         "authors": 2,
--         "sum": {
--           "rating": 9
--         },
--         "avg": {
--           "rating": 4.5
--         },
--         "max": {
--           "title": "Notes on engines",
--           "rating": 5
--         }
--       },
--       "nodes": [
--         {
--           "id": 1
--         },
--         {
--           "id": 3
--         }
--       ]
--     }
--   }
-- }
