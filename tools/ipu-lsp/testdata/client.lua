-- Drives ipu-lsp from Neovim's built-in LSP client, headless (nvim_test.go):
-- attach, ask for a definition and a hover, break the file, wait for the
-- diagnostic, and write what came back to $IPU_LSP_OUT.
local out = io.open(os.getenv("IPU_LSP_OUT"), "w")
vim.cmd("edit " .. os.getenv("IPU_LSP_FILE"))
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({ name = "ipu-lsp", cmd = { os.getenv("IPU_LSP_SERVER"), "-test.run=^$" }, root_dir = vim.fn.getcwd() })
vim.lsp.buf_attach_client(buf, id)
vim.wait(10000, function()
  local c = vim.lsp.get_client_by_id(id)
  return c ~= nil and c.server_capabilities ~= nil and next(c.server_capabilities) ~= nil
end, 20)
local doc = { uri = vim.uri_from_bufnr(buf) }
local res = vim.lsp.buf_request_sync(buf, "textDocument/definition", { textDocument = doc, position = { line = 3, character = 22 } }, 10000)
for _, r in pairs(res or {}) do
  local loc = r.result
  if loc and loc.range then
    out:write(string.format("definition %d %d\n", loc.range.start.line, loc.range.start.character))
  end
end
local h = vim.lsp.buf_request_sync(buf, "textDocument/hover", { textDocument = doc, position = { line = 2, character = 15 } }, 10000)
for _, r in pairs(h or {}) do
  if r.result and r.result.contents then
    out:write("hover " .. string.gsub(r.result.contents.value or "", "\n", " ") .. "\n")
  end
end
vim.api.nvim_buf_set_lines(buf, 3, 4, false, { "    %b = tensor.tanh %zz : tensor<16x32xf16>" })
vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
for _, d in ipairs(vim.diagnostic.get(buf)) do
  out:write(string.format("diagnostic %d %d %s\n", d.lnum, d.col, d.message))
end
out:close()
vim.cmd("qa!")
