# API Gateway gives the API a single base URL and routes path prefixes to the
# public functions. The gateway does not authenticate callers (the functions
# check Bearer API keys themselves); it calls the functions with an OIDC token
# for the gateway service account, the only principal allowed to invoke them.
#
# NOTE: because the gateway authenticates to the backend, it moves the caller's
# original `Authorization` header to `X-Forwarded-Authorization`.

locals {
  all_methods = ["get", "post", "put", "patch", "delete", "options"]

  # key (used for operationId) -> route definition
  gateway_routes = {
    health       = { path = "/health", function = "health", methods = ["get"] }
    openapi      = { path = "/openapi.json", function = "health", methods = ["get"] }
    chat         = { path = "/v1/chat/{path=**}", function = "chat", methods = local.all_methods }
    tracking     = { path = "/v1/tracking/{path=**}", function = "tracking", methods = local.all_methods }
    search_root  = { path = "/v1/search", function = "search", methods = ["get", "post", "options"] }
    search       = { path = "/v1/search/{path=**}", function = "search", methods = local.all_methods }
    knowledge    = { path = "/v1/knowledge/{path=**}", function = "knowledge", methods = local.all_methods }
    content      = { path = "/v1/content/{path=**}", function = "content", methods = local.all_methods }
    legal        = { path = "/v1/legal/{path=**}", function = "legal", methods = local.all_methods }
    research     = { path = "/v1/research/{path=**}", function = "research", methods = local.all_methods }
    osint        = { path = "/v1/osint/{path=**}", function = "osint", methods = local.all_methods }
    tasks        = { path = "/v1/tasks/{path=**}", function = "tracking", methods = local.all_methods }
    webhooks_idp = { path = "/webhooks/idp", function = "webhooks", methods = ["post"] }
    webhooks_sg  = { path = "/webhooks/sendgrid", function = "webhooks", methods = ["post"] }
    portal       = { path = "/v1/portal/{path=**}", function = "portal", methods = local.all_methods }
    # The developer portal's web page (static files, decision 0030).
    portal_page_root = { path = "/portal", function = "portal", methods = ["get"] }
    portal_page      = { path = "/portal/{path=**}", function = "portal", methods = ["get"] }
    usage            = { path = "/v1/usage", function = "usage", methods = ["get", "options"] }
    # The MCP server (decision 0052) and the OAuth protected-resource metadata its 401 names.
    mcp                  = { path = "/mcp", function = "mcp", methods = ["get", "post", "delete", "options"] }
    protected_resource   = { path = "/.well-known/oauth-protected-resource", function = "mcp", methods = ["get"] }
    protected_resource_m = { path = "/.well-known/oauth-protected-resource/mcp", function = "mcp", methods = ["get"] }
  }

  openapi_spec = templatefile("${path.module}/openapi-gateway.yaml.tftpl", {
    title   = "Advocacy Research Service"
    version = var.service_version
    # Only the routes whose function is deployed (see local.implemented).
    routes = [
      for key, route in local.gateway_routes : {
        key      = key
        path     = route.path
        function = route.function
        methods  = route.methods
        wildcard = strcontains(route.path, "{path=**}")
        address  = google_cloudfunctions2_function.fn[route.function].service_config[0].uri
        # Gateway -> backend deadline (ESPv2 default is only 15 s).
        deadline = format("%.1f", local.functions[route.function].timeout)
      } if contains(keys(local.functions), route.function)
    ]
  })
}

resource "google_api_gateway_api" "api" {
  provider = google-beta

  project      = var.project_id
  api_id       = "${var.name_prefix}-api"
  display_name = "Advocacy Research Service"
  labels       = local.labels

  depends_on = [google_project_service.enabled]
}

# Each API Gateway API is backed by a managed service that must be enabled
# in the project for the gateway to serve it.
resource "google_project_service" "gateway_managed_service" {
  project = var.project_id
  service = google_api_gateway_api.api.managed_service

  disable_on_destroy = false
}

resource "google_api_gateway_api_config" "api" {
  provider = google-beta

  project              = var.project_id
  api                  = google_api_gateway_api.api.api_id
  api_config_id_prefix = "${var.name_prefix}-cfg-"
  display_name         = "Advocacy Research Service ${var.service_version}"
  labels               = local.labels

  openapi_documents {
    document {
      path     = "openapi-gateway.yaml"
      contents = base64encode(local.openapi_spec)
    }
  }

  gateway_config {
    backend_config {
      google_service_account = google_service_account.gateway.email
    }
  }

  # API configs are immutable: create the replacement before the gateway
  # switches to it, then delete the old one.
  lifecycle {
    create_before_destroy = true
  }

  depends_on = [google_cloud_run_service_iam_member.gateway_invoker]
}

resource "google_api_gateway_gateway" "gateway" {
  provider = google-beta

  project      = var.project_id
  region       = var.region
  gateway_id   = "${var.name_prefix}-gateway"
  api_config   = google_api_gateway_api_config.api.id
  display_name = "Advocacy Research Service"
  labels       = local.labels

  depends_on = [google_project_service.gateway_managed_service]
}
