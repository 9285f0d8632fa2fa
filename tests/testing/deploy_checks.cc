#include "testing/deploy_checks.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace gpuplan::testing {
namespace {

// Writes `text` to a fresh file under the test temp dir; returns its path.
std::string TempFile(const std::string& text, const std::string& suffix) {
  std::string tmpl = ::testing::TempDir() + "gpuplan-deploy-XXXXXX" + suffix;
  const int fd = mkstemps(tmpl.data(), static_cast<int>(suffix.size()));
  EXPECT_GE(fd, 0) << tmpl;
  if (fd >= 0)
    close(fd);
  std::ofstream(tmpl, std::ios::binary) << text;
  return tmpl;
}

// Runs `command`; returns its combined output and sets *status to its exit status.
std::string Run(const std::string& command, int* status) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) {
    *status = -1;
    return "popen failed";
  }
  char buf[512];
  while (fgets(buf, sizeof buf, pipe))
    out += buf;
  *status = pclose(pipe);
  return out;
}

}  // namespace

std::string Squeeze(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == ' ' && !out.empty() && out.back() == ' ')
      continue;
    out += ch;
  }
  return out;
}

std::string ShellSyntaxErrors(const std::string& script, bool sh) {
  const std::string path = TempFile(script, ".sh");
  int status = 0;
  std::string out = Run(std::string(sh ? "sh" : "bash") + " -n " + path, &status);
  std::remove(path.c_str());
  return status == 0 ? "" : (out.empty() ? "exit status " + std::to_string(status) : out);
}

void CheckDeployFiles(const std::map<std::string, std::string>& files) {
  for (const char* name : {"run-instances.sh", "main.tf", "cloud-init.yaml", "README.md"}) {
    ASSERT_TRUE(files.count(name)) << name;
  }
  const std::string& script = files.at("run-instances.sh");
  EXPECT_EQ(script.rfind("#!/usr/bin/env bash\n", 0), 0u);
  EXPECT_NE(script.find("\nset -euo pipefail\n"), std::string::npos);
  EXPECT_EQ(ShellSyntaxErrors(script), "") << "run-instances.sh";

  const std::string& ci = files.at("cloud-init.yaml");
  EXPECT_EQ(ci.rfind("#cloud-config\n", 0), 0u);
  try {
    const YAML::Node doc = YAML::Load(ci);
    ASSERT_TRUE(doc["write_files"].IsSequence());
    ASSERT_TRUE(doc["runcmd"].IsSequence());
    int scripts = 0;
    for (const YAML::Node& f : doc["write_files"]) {
      const std::string path = f["path"].as<std::string>();
      const std::string content = f["content"].as<std::string>();
      EXPECT_FALSE(content.empty()) << path;
      if (content.rfind("#!/bin/bash", 0) == 0 || content.rfind("#!/bin/sh", 0) == 0) {
        ++scripts;
        EXPECT_EQ(f["permissions"].as<std::string>(), "0755") << path;
        EXPECT_EQ(ShellSyntaxErrors(content, content.rfind("#!/bin/sh", 0) == 0), "") << path;
      }
      if (path == "/etc/gpuplan/deploy.env") {
        EXPECT_EQ(ShellSyntaxErrors(content), "") << path;
      }
    }
    EXPECT_GE(scripts, 2) << "setup.sh and firstboot.sh at least";
  } catch (const YAML::Exception& e) {
    ADD_FAILURE() << "cloud-init.yaml is not valid YAML: " << e.what();
  }

  const std::string& tf = files.at("main.tf");
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < tf.size(); ++i) {
    const char ch = tf[i];
    if (in_string) {
      if (ch == '\\') {
        ++i;
      } else if (ch == '"') {
        in_string = false;
      } else if (ch == '\n') {
        ADD_FAILURE() << "main.tf: string runs past the end of a line";
      }
      continue;
    }
    if (ch == '#') {
      while (i < tf.size() && tf[i] != '\n')
        ++i;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '{' || ch == '[') {
      ++depth;
    } else if (ch == '}' || ch == ']') {
      --depth;
      EXPECT_GE(depth, 0) << "main.tf: unbalanced close at offset " << i;
    }
  }
  EXPECT_EQ(depth, 0) << "main.tf: unbalanced braces";
  EXPECT_FALSE(in_string) << "main.tf: unterminated string";
  int status = 0;
  Run("command -v terraform", &status);
  if (status == 0) {
    const std::string path = TempFile(tf, ".tf");
    const std::string out = Run("terraform fmt -check -diff " + path, &status);
    EXPECT_EQ(status, 0) << "terraform fmt -check main.tf:\n" << out;
    std::remove(path.c_str());
  }
}

}  // namespace gpuplan::testing
