-- Rows restored before every case, so that each case sees the same data.
TRUNCATE comment, article, author RESTART IDENTITY CASCADE;
INSERT INTO author (name, email, is_active, profile, tags) VALUES
  ('Ada', 'ada@example.com', true, '{"lang": "en", "links": {"site": "ada.dev"}}', '{math,engines}'),
  ('Brian', NULL, true, '{"lang": "de"}', '{c}'),
  ('Chris', 'chris@example.com', false, NULL, NULL);
INSERT INTO article (title, body, rating, published, author_id) VALUES
  ('Notes on engines', 'first', 5, true, 1),
  ('Draft on loops', 'second', NULL, false, 1),
  ('C in practice', 'third', 4, true, 2),
  ('Unfinished', NULL, 2, false, 3);
INSERT INTO comment (article_id, author_id, text) VALUES
  (1, 2, 'great'), (1, 3, 'agreed'), (3, 1, 'classic');
