-- jsonb operators, a json path argument, and array column comparisons.
-- role: admin

-- statement 1 of 1
SELECT ((
    SELECT coalesce(json_agg((
          SELECT row_to_json("_t2")
          FROM (
            SELECT "_t1"."name" AS "name", ("_t1"."profile" #> $1::text[]) AS "site", "_t1"."tags" AS "tags") AS "_t2")), '[]'::json)
    FROM (
      SELECT "_t1".*
      FROM "public"."author" AS "_t1"
      WHERE (true) AND ((("_t1"."profile" ? $2::text) AND ("_t1"."profile" @> $3::jsonb)) AND (("_t1"."tags" @> $4::"_text")))) AS "_t1"))::text AS "f0";
-- parameters: [["links","site"],"lang","{\"lang\":\"en\"}","{\"math\"}"]

-- response
-- {
--   "data": {
--     "author": [
--       {
--         "name": "Ada",
--         "site": "ada.dev",
--         "tags": [
--           "math",
--           "engines"
--         ]
--       }
--     ]
--   }
-- }
