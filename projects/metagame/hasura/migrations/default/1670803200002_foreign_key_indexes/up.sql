-- Not in the release: indexes on the referencing columns that the client follows. PostgreSQL
-- indexes only the referenced side of a foreign key, and a player's profile page reads their
-- skills, roles, guilds, accounts, quests and completions. Plain indexes add no GraphQL names
-- (Hasura lists only unique ones in the *_constraint enums), so the schema stays the release's.
CREATE INDEX player_account_player_id_idx ON public.player_account (player_id);
CREATE INDEX player_skill_skill_id_idx ON public.player_skill (skill_id);
CREATE INDEX guild_player_player_id_idx ON public.guild_player (player_id);
CREATE INDEX dao_guild_id_idx ON public.dao (guild_id);
CREATE INDEX dao_player_player_id_idx ON public.dao_player (player_id);
CREATE INDEX quest_guild_id_idx ON public.quest (guild_id);
CREATE INDEX quest_created_by_player_id_idx ON public.quest (created_by_player_id);
CREATE INDEX quest_completion_quest_id_idx ON public.quest_completion (quest_id);
CREATE INDEX quest_completion_completed_by_player_id_idx
  ON public.quest_completion (completed_by_player_id, submitted_at DESC);
CREATE INDEX quest_skill_skill_id_idx ON public.quest_skill (skill_id);

