# Sourced by load.sh and lines.sh. seed PORT TOKEN PET: on the server at 127.0.0.1:PORT, an account
# with a limit no load reaches (made with the admin TOKEN) and 100 pets (the JSON body PET); prints
# the account's key.
seed() {
  local port=$1 token=$2 pet=$3 key
  key=$(curl -s -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d '{"plan":"enterprise","limits":{"perMinute":1000000,"perDay":1000000000}}' \
    "http://127.0.0.1:$port/admin/v1/accounts" | sed 's/.*"key":"\([^"]*\)".*/\1/')
  for _ in $(seq 1 100); do
    curl -s -o /dev/null -X POST -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d "$pet" "http://127.0.0.1:$port/v1/pets"
  done
  echo "$key"
}
