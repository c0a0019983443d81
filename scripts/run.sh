#!/usr/bin/env bash
# The main job: classify a few sample chat messages with the committed int8 model.
EXTRAS="" source "$(dirname "$0")/venv.sh"
printf '%s\n' \
  "hey, are we still on for lunch tomorrow?" \
  "lol that movie was so good, thanks for the rec" \
  "shut up you stupid idiot, nobody wants you here" \
  "can you send me the notes from class?" \
  "you're a worthless piece of trash" \
  | moderation classify "$@"
