/**
 * Spotify (supabase/auth internal/api/provider/spotify.go): accounts.spotify.com /authorize and
 * /api/token, the user from api.spotify.com/v1/me (with EXTERNAL_SPOTIFY_URL set, all of them on
 * that host and the profile at /me). Spotify says nothing of verification: its address never
 * counts as verified. The picture is the largest of the user's images.
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

const area = (image: Record<string, unknown>) =>
  (typeof image.height === "number" ? image.height : 0) * (typeof image.width === "number" ? image.width : 0);

export const spotify: ProviderSpec = {
  scopes: ["user-read-email"],
  endpoints: ({ config }) => {
    const host = chooseHost(config.url, "accounts.spotify.com");
    return { authorize: `${host}/authorize`, token: `${host}/api/token` };
  },
  async userData(calls, tokens) {
    const api = chooseHost(calls.config.url, "api.spotify.com/v1");
    const user = record(await calls.getJson(`${api}/me`, tokens));
    const images = (Array.isArray(user.images) ? user.images : []).map(record);
    let largest = images[0];
    for (const image of images) if (largest && area(image) > area(largest)) largest = image;
    const avatar = largest ? text(largest.url) : "";
    const id = text(user.id);
    const email = text(user.email);
    return {
      emails: email ? [{ email, verified: false, primary: true }] : [],
      claims: claims({
        iss: api,
        sub: id,
        name: text(user.display_name),
        picture: avatar,
        avatar_url: avatar,
        full_name: text(user.display_name),
        provider_id: id,
      }),
    };
  },
};
