/** The methods a set of HttpApi definitions answers (`methods` in src/internal/routes.ts), as `Allow` lists them. */
import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { AdminApi } from "../../src/AdminApi.js"
import { Api } from "../../src/Api.js"
import * as App from "../../src/App.js"
import * as Routes from "../../src/internal/routes.js"

const Id = Schema.Struct({ id: Schema.String })

/** Endpoints declared in an order unlike the one `Allow` lists them in. */
const Things = HttpApi.make("things").add(
  HttpApiGroup.make("things")
    .add(HttpApiEndpoint.delete("remove", "/things/:id", { params: Id }))
    .add(HttpApiEndpoint.patch("change", "/things/:id", { params: Id }))
    .add(HttpApiEndpoint.get("read", "/things/:id", { params: Id }))
    .add(HttpApiEndpoint.get("list", "/things"))
    .add(HttpApiEndpoint.put("replace", "/things/:id", { params: Id }))
)

const Posts = HttpApi.make("posts").add(HttpApiGroup.make("posts").add(HttpApiEndpoint.post("make", "/posts")))

describe("the methods of the routes", () => {
  it("the pet store and admin APIs: GET with HEAD, POST, PUT (the admin API's webhook), PATCH (an account), DELETE", () => {
    expect(Routes.methods([Api, AdminApi])).toEqual(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"])
    expect(App.DEFAULT_METHODS).toEqual(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"])
  })

  it("each method once, HEAD wherever GET, in a fixed order whatever the order of the endpoints", () => {
    expect(Routes.methods([Things])).toEqual(["GET", "HEAD", "PUT", "PATCH", "DELETE"])
    expect(Routes.methods([Posts])).toEqual(["POST"])
    expect(Routes.methods([Posts, Things])).toEqual(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"])
    expect(Routes.methods([])).toEqual([])
  })
})
